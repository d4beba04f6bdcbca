"""The acl_cl backend: OpenCL kernels through PyOpenCL, tensors in device buffers."""
