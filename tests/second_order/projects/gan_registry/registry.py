class Registry:
    """A registry of classes by name, as mmengine and basicsr write them."""

    def __init__(self, name):
        self.name, self.classes = name, {}

    def register_module(self, name=None):
        def add(cls):
            self.classes[name or cls.__name__] = cls
            return cls
        return add

    def build(self, cfg):
        cfg = dict(cfg)
        return self.classes[cfg.pop("type")](**cfg)


MODELS = Registry("models")
