"""Model → Graph IR: loading, normalisation passes, costs, hashing, kernels."""
