"""l0/syntax"""
