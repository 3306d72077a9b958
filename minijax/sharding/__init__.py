"""``minijax.sharding``: meshes, partition specs and shardings (``jax.sharding``).

The classes live in the modules of this package, below the tracing core (which gives every
value's type its sharding); ``reshard``, ``auto_axes`` and ``explicit_axes`` bind primitives,
a layer above, and are imported on first use.
"""
from minijax.sharding.mesh import (AbstractDevice, AbstractMesh, AxisType, ManualAxisType, Mesh,
                                   get_abstract_mesh, get_mesh, set_mesh,
                                   use_abstract_mesh)
from minijax.sharding.named_sharding import (NamedSharding, Sharding, SingleDeviceSharding,
                                             make_single_device_sharding)
from minijax.sharding.partition_spec import PartitionSpec

__all__ = ['AbstractDevice', 'AbstractMesh', 'AxisType', 'ManualAxisType', 'Mesh',
           'NamedSharding', 'PartitionSpec', 'Sharding', 'SingleDeviceSharding',
           'get_abstract_mesh', 'get_mesh', 'make_single_device_sharding',
           'set_mesh', 'use_abstract_mesh']
