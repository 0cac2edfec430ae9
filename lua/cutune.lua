-- placeholder: replaced by the space helper library
return {}
