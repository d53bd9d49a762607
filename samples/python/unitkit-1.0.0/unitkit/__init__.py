"""unitkit: physical units, modelled on astropy.units.

Most of its names are made when it is imported (``def_unit`` writes them into the module's
namespace), so reading the source cannot list them; importing it can.
"""

from .core import Unit, def_unit
from .si import *  # noqa: F401,F403
from .quantities import *  # noqa: F401,F403

__version__ = "1.0.0"
