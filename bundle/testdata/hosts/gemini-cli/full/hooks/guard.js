// placeholder guard
