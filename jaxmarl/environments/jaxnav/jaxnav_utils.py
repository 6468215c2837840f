"""JaxMARL 0.2.0's module path for JaxNav's maths helpers (see ``geometry.py``)."""

from jaxmarl.environments.jaxnav.geometry import cart2pol, euclid_dist, pol2cart, rot_mat, unitvec, wrap

__all__ = ["cart2pol", "euclid_dist", "pol2cart", "rot_mat", "unitvec", "wrap"]
