-- The BF16 hgemm space restricted to the configurations listed in $CUTUNE_PIN (lua/pin.lua): the
-- GPU session (bench/hgemm_session.sh) measures the header's shipped configurations with cutune
-- in the same call as the production launcher; tests/cli_kernels_hgemm.sh makes a header from a
-- few. Without $CUTUNE_PIN it is the whole space.
return require "pin" (require("hgemm").space("bf16"))
