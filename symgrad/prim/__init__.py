"""The machinery of "declared once": primitives, their nodes, the rule vocabulary and its
NumPy and SymPy interpreters. The ops themselves are declared in :mod:`symgrad.ops`."""
