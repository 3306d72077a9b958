"""``minijax.sharding``: meshes, partition specs and shardings (``jax.sharding``).

The classes live in the modules of this package, below the tracing core. Of
``jax.sharding``'s names, ``reshard``, ``auto_axes`` and ``explicit_axes`` are missing: they
change the sharding a value's type carries on ``Explicit`` axes (sharding in types).
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
