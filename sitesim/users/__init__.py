"""Simulated users: submittal models (when), workpool models (what), and the user process.

The two kinds of model are independent, as the site-level paper found them to be; a
user combines one of each. Importing this package registers the built-in models.
"""

from sitesim.users import failing, submittal, workpool  # noqa: F401  (registers built-in models)
from sitesim.users.submittal import SUBMITTAL_MODELS, SubmittalModel
from sitesim.users.user import User, user_streams
from sitesim.users.workpool import WORKPOOL_MODELS, WorkpoolJob, WorkpoolModel

__all__ = [
    "SUBMITTAL_MODELS",
    "WORKPOOL_MODELS",
    "SubmittalModel",
    "User",
    "WorkpoolJob",
    "WorkpoolModel",
    "user_streams",
]
