"""Prompt routing for the scripted model (each prompt file has a distinctive sentence)."""

ANALYST = r"You are the analyst"
PLANNER = r"You write short plans"
CODER = r"You write correct, simple Python"
TESTER = r"You are the tester"
DIRECT = r"You complete Python functions"
REFLECT = r"You analyse programming problems"
FLOW_CODE = r"Write this function:"
