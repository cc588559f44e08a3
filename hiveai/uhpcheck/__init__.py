"""``hiveai uhp-check``: check any UHP engine against the protocol and the rules.

Start with :mod:`hiveai.uhpcheck.check`, which says what each module holds.
Nothing is imported here, so that importing a part stays cheap.
"""
