from ._marker import Marker
