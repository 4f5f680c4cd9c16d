// placeholder server
