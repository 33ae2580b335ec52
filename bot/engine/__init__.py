"""The top of the house: the router and the wiring of flows, reminders, safety and storage."""
