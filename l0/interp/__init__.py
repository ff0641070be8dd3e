"""l0/interp"""
