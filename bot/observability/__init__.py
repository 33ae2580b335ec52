"""What an operator watches: health and metrics, served over HTTP when asked for."""
