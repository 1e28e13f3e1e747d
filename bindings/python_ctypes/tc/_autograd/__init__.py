"""The files of tc.autograd's submodules (functional, gradcheck, grad_mode, anomaly_mode).

They are imported as ``tc.autograd.<name>`` through tc.autograd's ``__path__``; this file
only makes the folder a package, so that packaging (find_packages) ships it.
"""
