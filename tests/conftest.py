import os

from hypothesis import HealthCheck, settings

# "ci": derandomised and without deadlines (solver start-up times vary); "nightly": many more.
settings.register_profile("ci", derandomize=True, deadline=None, max_examples=60,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("nightly", deadline=None, max_examples=2000,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
