"""What a training step keeps, measured on the tensors themselves.

Every figure counts storages (the memory a tensor views), each one once, so views and
a tensor saved by several operations are not counted twice."""
import torch
from torch.utils._python_dispatch import TorchDispatchMode


def storage(t):
    """(key, bytes) of the memory t views."""
    s = t.untyped_storage() if hasattr(t, "untyped_storage") else t.storage()
    return (t.device, s.data_ptr()), s.nbytes()


def unique_bytes(tensors):
    seen = {}
    for t in tensors:
        key, n = storage(t)
        seen[key] = n
    return sum(seen.values())


def parameter_bytes(model):
    return unique_bytes(model.parameters())


def gradient_bytes(model):
    return unique_bytes(p.grad for p in model.parameters() if p.grad is not None)


def optimizer_state_bytes(model, make):
    """Bytes of the per-parameter state one step of the optimizer creates.  The step
    counter is left out: torch's AdamW keeps it as a host scalar on a GPU run (unless
    capturable or fused), so it is no GPU memory."""
    opt = make(model.parameters())
    opt.step()
    states = [v for st in opt.state.values() for name, v in st.items()
              if name != "step" and isinstance(v, torch.Tensor)]
    n = unique_bytes(states)
    del opt, states
    return n


class _Held:
    """What autograd stores for one saved tensor; tells the meter when it is dropped."""

    def __init__(self, meter, t, key):
        self.meter, self.t, self.key = meter, t, key

    def __del__(self):
        self.meter.release(self.key)


class SavedTensors:
    """The bytes autograd keeps for backward, live, and their peak.

    Use pack/unpack as torch.autograd.graph.saved_tensors_hooks around the forward and
    the backward (full recomputation saves again in backward).  The model's parameters
    are weights, not activations, and are not counted.  Under autocast, casts() records
    the 16-bit copies of the weights that autocast caches until its region ends; call
    end_autocast() when it does."""

    def __init__(self, model):
        self.params = {storage(p)[0] for p in model.parameters()}
        self.refs = {}  # key -> [holders, bytes]
        self.live = self.peak = 0
        self.cached = []

    def hold(self, key, n):
        ref = self.refs.setdefault(key, [0, n])
        if ref[0] == 0:
            self.live += n
            self.peak = max(self.peak, self.live)
        ref[0] += 1

    def release(self, key):
        ref = self.refs[key]
        ref[0] -= 1
        if ref[0] == 0:
            self.live -= ref[1]
            del self.refs[key]

    def pack(self, t):
        key, n = storage(t)
        if key in self.params:
            return t
        self.hold(key, n)
        return _Held(self, t, key)

    @staticmethod
    def unpack(held):
        return held if isinstance(held, torch.Tensor) else held.t

    def casts(self):
        return _CastRecorder(self)

    def end_autocast(self):
        for key, _ in self.cached:
            self.release(key)
        self.cached = []


class _CastRecorder(TorchDispatchMode):
    """Sees every dtype cast of a parameter (autocast's weight copies)."""

    def __init__(self, meter):
        super().__init__()
        self.meter = meter

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if func is torch.ops.aten._to_copy.default and storage(args[0])[0] in self.meter.params:
            key, n = storage(out)
            self.meter.hold(key, n)
            self.meter.cached.append((key, out))
        return out
