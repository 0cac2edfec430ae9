-- The SGEMM shape set (lua/matmul_shapes.lua) restricted to the configurations listed in
-- $CUTUNE_PIN (lua/pin.lua): measures chosen configurations — ones a search has not reached,
-- found by bench/templates_session.sh — on every shape of the set, into the same store
-- ("matmul"), so that `cutune header lua/matmul_shapes.lua` weighs them with the rest. Without
-- $CUTUNE_PIN it is the whole set.
return require "pin" (require "matmul_shapes")
