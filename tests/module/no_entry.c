/* A shared library that is not a CUDA module: no tc_cuda_module_init. */
int tc_test_not_a_module(void);
int tc_test_not_a_module(void) { return 42; }
