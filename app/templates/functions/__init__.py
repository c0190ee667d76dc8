"""Intrinsic functions of HOT (and the CFN functions HOT 2013-05-23 accepts)."""
