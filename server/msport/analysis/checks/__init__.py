"""The check families, one module each; the engine runs them in this order."""

from .api_mapping import ApiMappingCheck
from .dynamic_shape import DynamicShapeCheck
from .graph_mode import GraphModeCheck
from .inplace_data import InplaceDataCheck
from .layer_parameters import LayerParametersCheck
from .replacements import ReplacementsCheck
from .second_order import SecondOrderCheck
from .sparse import SparseCheck

CHECKS = (ApiMappingCheck, DynamicShapeCheck, GraphModeCheck, ReplacementsCheck, SecondOrderCheck, SparseCheck, LayerParametersCheck,
          InplaceDataCheck)
