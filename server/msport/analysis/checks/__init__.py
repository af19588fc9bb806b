"""The check families, one module each; the engine runs them in this order."""

from .api_mapping import ApiMappingCheck

CHECKS = (ApiMappingCheck,)
