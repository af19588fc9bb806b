class Registry:
    """Classes by name, as basicsr's utils/registry.py writes it (register() and get())."""

    def __init__(self, name):
        self._name, self._obj_map = name, {}

    def register(self, obj=None):
        if obj is None:
            def deco(cls):
                self._obj_map[cls.__name__] = cls
                return cls
            return deco
        self._obj_map[obj.__name__] = obj

    def get(self, name):
        return self._obj_map[name]


ARCH_REGISTRY = Registry("arch")
HEAD_REGISTRY = Registry("head")
