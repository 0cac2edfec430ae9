-- The vecadd space restricted to the configurations listed in $CUTUNE_PIN (lua/pin.lua): the GPU
-- test of the production launchers (tests/cli_gpu_launcher.sh) measures the header's
-- configurations with cutune in the same call as the launcher. Without $CUTUNE_PIN it is the
-- whole space.
return require "pin" (require "vecadd_space")
