"""Authentication: password check at login, signed bearer tokens after."""
