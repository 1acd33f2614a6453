"""What a training step keeps, measured on the tensors themselves.

Every figure counts storages (the memory a tensor views), each one once, so views and
a tensor saved by several operations are not counted twice."""
import torch
from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode
from torch.utils._mode_utils import no_dispatch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_map


def storage(t):
    """(key, bytes) of the memory t views: the storage itself is the key, which a fake
    tensor has too (it has no data pointer)."""
    s = t.untyped_storage() if hasattr(t, "untyped_storage") else t.storage()._storage
    return s._cdata, s.nbytes()


class Shapes(FakeTensorMode):
    """PyTorch's fake tensors: shapes, dtypes, devices and storages without data, every
    operator run by its meta kernel.  Autograd saves what it saves in a real run, and
    parameters, gradients and optimizer states have the bytes they have there, without
    the arithmetic (a bf16 matmul on a CPU without bf16 instructions runs at a few GFLOP/s).
    Two gaps of torch 1.13's mode are filled here: a real tensor that reaches an operator
    (a Python number autograd wraps into a CPU scalar, such as a division's divisor) is
    made fake, and the profiler's record_function operators, which Optimizer.step calls,
    run as they are.  And where the CPU's kernel makes other tensors than the meta kernel,
    the mode makes the CPU's: torch 1.13's CPU layer norm returns the mean and the
    reciprocal deviation it saves for backward in a 16-bit input's dtype (layer_norm_cpu
    makes them with the input's options), its meta kernel in fp32, as CUDA's does."""

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func._schema.name.startswith("profiler::"):
            with no_dispatch():
                return func(*args, **kwargs)
        if func not in self.lift_fns:  # a lift makes a real tensor fake itself
            args, kwargs = tree_map(
                lambda x: self.from_tensor(x)
                if isinstance(x, torch.Tensor) and not isinstance(x, FakeTensor) else x,
                (args, kwargs))
        out = super().__torch_dispatch__(func, types, args, kwargs)
        if func is torch.ops.aten.native_layer_norm.default and args[0].dtype in (
                torch.float16, torch.bfloat16):
            out = (out[0], out[1].to(args[0].dtype), out[2].to(args[0].dtype))
        return out


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
