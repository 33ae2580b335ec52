"""Reading what people really type: places for time zones, times of day, days, quiet hours."""
