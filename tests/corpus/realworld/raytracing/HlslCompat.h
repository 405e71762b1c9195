//*********************************************************
// Helper typedefs so that the shared header compiles as HLSL.
//*********************************************************

#ifndef HLSLCOMPAT_H
#define HLSLCOMPAT_H

typedef float2 XMFLOAT2;
typedef float3 XMFLOAT3;
typedef float4 XMFLOAT4;
typedef float4 XMVECTOR;
typedef float4x4 XMMATRIX;
typedef uint UINT;

#endif // HLSLCOMPAT_H
