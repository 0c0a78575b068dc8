"""Search over the forward-model protocol (UCT, ISMCTS, DUCT, ...): see the search-core issue."""
