"""Seeded perturbation generators: realistic system errors made from gold annotations.

Each generator takes a ``numpy.random.Generator`` (or a seed) and never touches global random
state. :mod:`.mentions` perturbs event-nugget mentions (TBF), :mod:`.clusters` perturbs
coreference clusters.
"""
