"""What people see: the table view, roads, transcript, dealer console and web scoreboard."""
