"""l0/cli"""
