from .critic import Critic, Generator
