import nvidia.cublas
ctypes.CDLL('libcudart.so.12')
load_nvidia_dynamic_lib("nvrtc")
