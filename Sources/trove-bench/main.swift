print("trove-bench")
