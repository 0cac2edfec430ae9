-- expect: the space file must return ct.space { ... } (got number 5)
return 5
