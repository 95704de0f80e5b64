/* d3d12wl stub for the Windows-target header check.  With directx-headers-dev installed this is its WSL adapter
 * (the way DirectX-Headers are used off Windows); otherwise the Windows x64 fixed-width typedefs only. */
#pragma once
#if __has_include(<wsl/winadapter.h>)
#include <wsl/winadapter.h>
#else
#include <stddef.h>
#include <stdint.h>
typedef uint8_t UINT8, BYTE, UCHAR;
typedef int8_t INT8;
typedef uint16_t UINT16, WORD, USHORT, WCHAR;
typedef int16_t INT16, SHORT;
typedef uint32_t UINT32, UINT, ULONG, DWORD;
typedef int32_t INT32, INT, LONG, BOOL, HRESULT;  /* BOOL is int (minwindef.h) */
typedef uint64_t UINT64, ULONG64, ULONGLONG, ULONG_PTR, UINT_PTR, SIZE_T;
typedef int64_t INT64, LONG64, LONGLONG, LONG_PTR, INT_PTR;
typedef float FLOAT;
typedef double DOUBLE;
typedef char CHAR;
typedef void VOID, *PVOID, *LPVOID, *HANDLE;
typedef const void *LPCVOID;
typedef const char *LPCSTR;
typedef const WCHAR *LPCWSTR;
typedef struct _GUID { uint32_t Data1; uint16_t Data2; uint16_t Data3; uint8_t Data4[8]; } GUID, IID;
#define TRUE 1
#define FALSE 0
#endif
