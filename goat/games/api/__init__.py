"""HTTP interface: thin DRF views and their serializers, one module per topic."""
