"""The sweep: every op on unusual inputs, against PyTorch answers recorded in a file."""
