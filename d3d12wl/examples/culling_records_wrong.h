/* A WRONG copy of culling_records.h, to show what the check reports: a flags word placed before the SRV under
 * pack(4) puts the 8-byte SRV at offset 4, straddling the SRV and _DRAW payloads.
 *
 * The records of the Work Lists spec's culling example ("GPU culling and work list emission") as an engine's C/C++
 * declares them, to check against the layout calculator:
 *
 *   d3d12wl abi check --header d3d12wl/examples/culling_records_wrong.h --signature d3d12wl/examples/culling.json \
 *       --record PCS.secondary=SecondaryRecord --record PCS.primary=PrimaryRecord \
 *       --record PCS.program_table=MaterialSlot
 *
 * SecondaryRecord is the spec's own (its HLSL struct: the root SRV, then the four _DRAW arguments).
 */
#pragma once
#include <stdint.h>
#include "d3d12wl_base.h"
#include "d3d12wl_execute_indirect.h"
#include "d3d12wl_work_lists.h"

#pragma pack(push, 4)
struct SecondaryRecord
{
    uint32_t Flags;
    uint64_t MaterialBufferSRV;
    uint32_t VertexCountPerInstance;
    uint32_t InstanceCount;
    uint32_t StartVertexLocation;
};
#pragma pack(pop)

/* one hybrid primary record: the fixed header and nothing after it (every argument comes from the secondary list) */
struct PrimaryRecord
{
    D3D12_WORK_LIST_PRIMARY_RECORD Header;
};

/* a program-table slot: the program identifier, then the per-material tint (_INLINE_ROOT_PARAMETER, 4 DWORDs) */
struct MaterialSlot
{
    D3D12_PROGRAM_IDENTIFIER Program;
    float Tint[4];
};
