"""Problem-independent machinery: the linear model, results, solving, decomposition."""
