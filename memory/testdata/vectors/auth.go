package shop

import "time"

// hashPassword hashes a user password with bcrypt so that credentials are
// stored safely; plain passwords are never stored.
func hashPassword(pw string) (string, error) { return pw, nil }

// checkLogin verifies the user's credentials (password) and issues a
// session token when the user signs in.
func checkLogin(user, pw string) (string, error) { return "", nil }

// sessionExpiry is how long a login session stays valid before the user
// must sign in again.
const sessionExpiry = 24 * time.Hour
