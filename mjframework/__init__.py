"""mjframework: a mahjong variant declared in YAML; one engine plays, scores and settles it."""

from .errors import HandError, MJError, RulesetError
from .ruleset import available_rulesets, load_ruleset

__all__ = ["HandError", "MJError", "RulesetError", "available_rulesets", "load_ruleset"]
__version__ = "0.2.0"
