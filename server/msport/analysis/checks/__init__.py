"""The check families, one module each; the engine runs them in this order."""

from .api_mapping import ApiMappingCheck
from .dynamic_shape import DynamicShapeCheck
from .layer_parameters import LayerParametersCheck
from .replacements import ReplacementsCheck

CHECKS = (ApiMappingCheck, DynamicShapeCheck, ReplacementsCheck, LayerParametersCheck)
