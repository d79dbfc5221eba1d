"""Matching problems. Each module has an instance dataclass, an ILP, heuristics, a brute-force
oracle, a checker and a ``solve(instance, method=...)`` that returns a verified Result."""
