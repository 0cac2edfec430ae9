-- expect: the space file returned nothing
local ct = require "cutune"
local s = ct.space { template = "tiny.cu" }
