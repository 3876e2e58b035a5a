  """Shop package."""
  
  VERSION = "2.0.1"
# ^^^^^^^ definition scip-python python shop 2.0.1 `src.shop`/VERSION.
# kind var lines 3-3
