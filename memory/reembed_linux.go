package memory

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// exchangeAtomic exchanges the directories a and b in one step with
// renameat2(2) RENAME_EXCHANGE (Linux 3.15+); it returns errNoExchange
// where the file system does not support it (EINVAL, ENOSYS).
func exchangeAtomic(a, b string) error {
	err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) {
		return fmt.Errorf("%w: %v", errNoExchange, err)
	}
	return err
}
