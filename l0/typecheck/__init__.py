"""l0/typecheck"""
