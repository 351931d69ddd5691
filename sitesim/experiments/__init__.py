"""The paper's feedback experiments (section 6) as functions returning plain data.

Scripts in ``scripts/`` call these and draw the figures; tests call them on small runs.
"""
