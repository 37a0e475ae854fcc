"""Built-in plugins of mjframework.

Each is a class registered through the ``mjframework.plugins`` entry-point
group (see ``pyproject.toml``), exactly as a third-party plugin would be, and
switched on by a ruleset's ``plugins:`` section.
"""
