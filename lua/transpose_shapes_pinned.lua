-- The transpose shape set (lua/transpose_shapes.lua) restricted to the configurations listed in
-- $CUTUNE_PIN (lua/pin.lua): measures chosen configurations on every size of the set, into the
-- same store ("transpose"), so that `cutune header lua/transpose_shapes.lua` weighs them with
-- the rest (bench/shapes_session.sh, step trpin). Without $CUTUNE_PIN it is the whole set.
return require "pin" (require "transpose_shapes")
