# pytest over the Python package: ctest (python_tests) runs it with PYTHONPATH at the build
# tree's package, OFLITE_CLI at the built oflite and OFLITE_TEST_PLUGIN_GOOD at a test op library.
import numpy as np
import pytest


@pytest.fixture
def rng():
    return np.random.default_rng(20240529)
