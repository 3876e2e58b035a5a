module example.com/tollgate

go 1.22
